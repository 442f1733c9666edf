package pinotsink.verify;

import java.io.File;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pinot.segment.local.indexsegment.immutable.ImmutableSegmentImpl;
import org.apache.pinot.segment.local.indexsegment.immutable.ImmutableSegmentLoader;
import org.apache.pinot.segment.local.upsert.ConcurrentMapPartitionUpsertMetadataManager;
import org.apache.pinot.segment.local.upsert.UpsertContext;
import org.apache.pinot.segment.spi.ImmutableSegment;
import org.apache.pinot.spi.config.table.HashFunction;
import org.apache.pinot.spi.config.table.TableConfig;
import org.apache.pinot.spi.config.table.UpsertConfig;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.utils.JsonUtils;
import org.apache.pinot.spi.utils.ReadMode;
import org.roaringbitmap.PeekableIntIterator;

/**
 * Replays segment adds and removes through Pinot's own upsert metadata manager (one
 * ConcurrentMapPartitionUpsertMetadataManager per partition id, as a server keeps them) and prints every valid doc.
 *
 * Usage: UpsertCheck TABLE_CONFIG SCHEMA EVENTS OUT
 *   EVENTS: one a line, "add <partitionId> <segment dir>" or "remove <segment name>", in the server's order
 *   OUT:    JSON lines {"segment", "docId", "values": {column: value}} of the valid docs at the end
 */
public class UpsertCheck {
  public static void main(String[] args) throws Exception {
    TableConfig tableConfig = JsonUtils.fileToObject(new File(args[0]), TableConfig.class);
    Schema schema = Schema.fromFile(new File(args[1]));
    UpsertConfig upsertConfig = tableConfig.getUpsertConfig();
    List<String> comparison = upsertConfig.getComparisonColumns() != null ? upsertConfig.getComparisonColumns()
        : List.of(tableConfig.getValidationConfig().getTimeColumnName());
    File indexDir = Files.createTempDirectory("upsert-check").toFile();
    UpsertContext context = new UpsertContext.Builder().setTableConfig(tableConfig).setSchema(schema)
        .setPrimaryKeyColumns(schema.getPrimaryKeyColumns()).setHashFunction(HashFunction.NONE)
        .setComparisonColumns(comparison).setConsistencyMode(UpsertConfig.ConsistencyMode.NONE)
        .setTableIndexDir(indexDir).build();
    Map<Integer, ConcurrentMapPartitionUpsertMetadataManager> managers = new HashMap<>();
    Map<String, ImmutableSegmentImpl> loaded = new LinkedHashMap<>();
    Map<String, Integer> partitions = new HashMap<>();
    for (String line : Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.split(" ", 3);
      if (parts[0].equals("add")) {
        int partition = Integer.parseInt(parts[1]);
        ImmutableSegment segment = ImmutableSegmentLoader.load(new File(parts[2]), ReadMode.heap);
        ConcurrentMapPartitionUpsertMetadataManager manager = managers.computeIfAbsent(partition,
            p -> new ConcurrentMapPartitionUpsertMetadataManager(tableConfig.getTableName(), p, context));
        manager.addSegment(segment);
        loaded.put(segment.getSegmentName(), (ImmutableSegmentImpl) segment);
        partitions.put(segment.getSegmentName(), partition);
      } else {
        ImmutableSegmentImpl segment = loaded.remove(parts[1]);
        managers.get(partitions.get(parts[1])).removeSegment(segment);
      }
    }
    List<String> columns = new ArrayList<>(schema.getColumnNames());
    try (PrintWriter out = new PrintWriter(args[3], StandardCharsets.UTF_8)) {
      for (ImmutableSegmentImpl segment : loaded.values()) {
        PeekableIntIterator docs = segment.getValidDocIds().getMutableRoaringBitmap().getIntIterator();
        while (docs.hasNext()) {
          int docId = docs.next();
          Map<String, Object> values = new LinkedHashMap<>();
          for (String column : columns) {
            values.put(column, segment.getValue(docId, column));
          }
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("segment", segment.getSegmentName());
          row.put("docId", docId);
          row.put("values", values);
          out.println(JsonUtils.objectToString(row));
        }
      }
    }
  }
}
