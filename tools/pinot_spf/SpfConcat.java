// pinot-spf-concat: runs Apache Pinot's SegmentProcessorFramework with a CONCAT config on segment folders, set up
// the way Pinot's MergeRollupTask executor sets it up for one task (time handler EPOCH partitioned by the bucket
// period, one TABLE_PARTITION_CONFIG partitioner per segmentPartitionConfig column, maxNumRecordsPerSegment, a
// segment name prefix), and moves the output segments into --out. Our own driver: built by build.sh beside
// pinot-verify's classes; never part of the package or its tests (their fixtures keep what it produced).
//
// usage: pinot-spf-concat --schema schema.json --table-config table_config.json --out DIR
//          [--bucket PERIOD (e.g. 1d, 1h)] [--max-records N] [--creation-time MS]
//          [--segment-name-prefix P] [--segment-name-postfix P] SEGMENT_DIR...
// stdout: one JSON line per output segment, in the framework's order: {"segment": name, "rows": n[, "partitions":
// {column: [ids]}]}.
package pinotspf;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.commons.io.FileUtils;
import org.apache.pinot.core.segment.processing.framework.MergeType;
import org.apache.pinot.core.segment.processing.framework.SegmentConfig;
import org.apache.pinot.core.segment.processing.framework.SegmentProcessorConfig;
import org.apache.pinot.core.segment.processing.framework.SegmentProcessorFramework;
import org.apache.pinot.core.segment.processing.partitioner.PartitionerConfig;
import org.apache.pinot.core.segment.processing.partitioner.PartitionerFactory;
import org.apache.pinot.core.segment.processing.timehandler.TimeHandler;
import org.apache.pinot.core.segment.processing.timehandler.TimeHandlerConfig;
import org.apache.pinot.segment.local.segment.readers.PinotSegmentRecordReader;
import org.apache.pinot.segment.spi.ColumnMetadata;
import org.apache.pinot.segment.spi.index.metadata.SegmentMetadataImpl;
import org.apache.pinot.spi.config.table.ColumnPartitionConfig;
import org.apache.pinot.spi.config.table.SegmentPartitionConfig;
import org.apache.pinot.spi.config.table.TableConfig;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.data.readers.RecordReader;
import org.apache.pinot.spi.utils.JsonUtils;
import org.apache.pinot.spi.utils.TimeUtils;


public final class SpfConcat {
  private static final String USAGE = "usage: pinot-spf-concat --schema schema.json --table-config table_config.json"
      + " --out DIR [--bucket PERIOD] [--max-records N] [--creation-time MS] [--segment-name-prefix P]"
      + " [--segment-name-postfix P] SEGMENT_DIR...";

  private SpfConcat() {
  }

  public static void main(String[] args) {
    Map<String, String> opts = new LinkedHashMap<>();
    List<File> inputs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--")) {
        if (i + 1 >= args.length) {
          usage();
        }
        opts.put(args[i].substring(2), args[++i]);
      } else {
        inputs.add(new File(args[i]));
      }
    }
    for (String key : opts.keySet()) {
      if (!Set.of("schema", "table-config", "out", "bucket", "max-records", "creation-time", "segment-name-prefix",
          "segment-name-postfix").contains(key)) {
        usage();
      }
    }
    if (!opts.containsKey("schema") || !opts.containsKey("table-config") || !opts.containsKey("out")
        || inputs.isEmpty()) {
      usage();
    }
    PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    int rc;
    try {
      long start = System.nanoTime();
      run(opts, inputs, out);
      System.err.println("spf_ms=" + (System.nanoTime() - start) / 1_000_000);
      rc = 0;
    } catch (Throwable t) {
      t.printStackTrace();
      out.println("{\"kind\":\"error\",\"stage\":\"spf\",\"message\":" + quote(String.valueOf(t)) + "}");
      rc = 1;
    }
    rc = audit(out, rc);
    out.flush();
    System.exit(rc);
  }

  private static void usage() {
    System.err.println(USAGE);
    System.exit(64);
  }

  static void run(Map<String, String> opts, List<File> inputs, PrintWriter out)
      throws Exception {
    Schema schema = Schema.fromFile(new File(opts.get("schema")));
    TableConfig tableConfig = JsonUtils.fileToObject(new File(opts.get("table-config")), TableConfig.class);

    SegmentProcessorConfig.Builder builder =
        new SegmentProcessorConfig.Builder().setTableConfig(tableConfig).setSchema(schema)
            .setMergeType(MergeType.CONCAT);
    // As the MergeRollupTask executor does: EPOCH time handling when the table has a time column, partitioned by
    // the bucket period (its bucketTimePeriod) when one is given; no window, no rounding (concat).
    String timeColumn = tableConfig.getValidationConfig().getTimeColumnName();
    if (timeColumn != null) {
      TimeHandlerConfig.Builder time = new TimeHandlerConfig.Builder(TimeHandler.Type.EPOCH);
      if (opts.containsKey("bucket")) {
        time.setPartitionBucketMs(TimeUtils.convertPeriodToMillis(opts.get("bucket")));
      }
      builder.setTimeHandlerConfig(time.build());
    }
    List<PartitionerConfig> partitioners = new ArrayList<>();
    SegmentPartitionConfig partitionConfig = tableConfig.getIndexingConfig().getSegmentPartitionConfig();
    if (partitionConfig != null) {
      for (Map.Entry<String, ColumnPartitionConfig> e : partitionConfig.getColumnPartitionMap().entrySet()) {
        partitioners.add(new PartitionerConfig.Builder()
            .setPartitionerType(PartitionerFactory.PartitionerType.TABLE_PARTITION_CONFIG).setColumnName(e.getKey())
            .setColumnPartitionConfig(e.getValue()).build());
      }
    }
    builder.setPartitionerConfigs(partitioners);
    SegmentConfig.Builder segment = new SegmentConfig.Builder();
    if (opts.containsKey("max-records")) {
      segment.setMaxNumRecordsPerSegment(Integer.parseInt(opts.get("max-records")));
    }
    segment.setSegmentNamePrefix(opts.get("segment-name-prefix"));
    segment.setSegmentNamePostfix(opts.get("segment-name-postfix"));
    builder.setSegmentConfig(segment.build());
    if (opts.containsKey("creation-time")) {
      builder.setCustomCreationTime(Long.parseLong(opts.get("creation-time")));
    }
    builder.setProgressObserver(p -> { });

    File outDir = new File(opts.get("out"));
    FileUtils.forceMkdir(outDir);
    File work = Files.createTempDirectory("pinot-spf-").toFile();
    List<RecordReader> readers = new ArrayList<>();
    try {
      for (File input : inputs) {
        // As the executor: nulls stay null (the null-value transformer fills the defaults and the null vector).
        PinotSegmentRecordReader reader = new PinotSegmentRecordReader();
        reader.init(input, null, null, true);
        readers.add(reader);
      }
      SegmentProcessorFramework framework = new SegmentProcessorFramework(builder.build(), work,
          SegmentProcessorFramework.convertRecordReadersToRecordReaderFileConfig(readers), List.of(), null);
      List<File> made = framework.process();
      for (File dir : made) {
        File target = new File(outDir, dir.getName());
        FileUtils.deleteQuietly(target);
        FileUtils.moveDirectory(dir, target);
        SegmentMetadataImpl metadata = new SegmentMetadataImpl(target);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("segment", dir.getName());
        line.put("rows", metadata.getTotalDocs());
        Map<String, Object> partitions = new TreeMap<>();
        for (ColumnMetadata column : metadata.getColumnMetadataMap().values()) {
          if (column.getPartitions() != null) {
            partitions.put(column.getColumnName(), new TreeSet<>(column.getPartitions()));
          }
        }
        if (!partitions.isEmpty()) {
          line.put("partitions", partitions);
        }
        out.println(JsonUtils.objectToString(line));
      }
    } finally {
      for (RecordReader reader : readers) {
        reader.close();
      }
      FileUtils.deleteQuietly(work);
    }
  }

  private static String quote(String s)
      throws RuntimeException {
    try {
      return JsonUtils.objectToString(s);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  /// The class audit: build.sh lists the classes of the processing sources that did not compile (rollup
  /// aggregators that need pinot-core's ObjectSerDeUtils, the Helix lifecycle listeners) in
  /// pinot-spf/tainted-classes.txt; a CONCAT run must not even load them. Then pinot-verify's own audit
  /// (pinotverify.ClassAudit, package-private: called by reflection) checks its tainted classes and stand-ins.
  private static int audit(PrintWriter out, int rc) {
    Set<String> loaded = new TreeSet<>();
    try (InputStream in = SpfConcat.class.getResourceAsStream("/pinot-spf/tainted-classes.txt")) {
      if (in == null) {
        throw new IllegalStateException("pinot-spf/tainted-classes.txt not found on the classpath");
      }
      Set<String> tainted = new TreeSet<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          tainted.add(line.trim());
        }
      }
      Class<?> agent = Class.forName("pinotverify.agent.AuditAgent");
      java.lang.instrument.Instrumentation inst =
          (java.lang.instrument.Instrumentation) agent.getMethod("get").invoke(null);
      if (inst == null) {
        throw new IllegalStateException("the JVM was started without -javaagent audit-agent.jar");
      }
      for (Class<?> c : inst.getAllLoadedClasses()) {
        if (tainted.contains(c.getName())) {
          loaded.add(c.getName());
        }
      }
      Class<?> classAudit = Class.forName("pinotverify.ClassAudit");
      Method finish = classAudit.getDeclaredMethod("finish", PrintWriter.class, int.class);
      finish.setAccessible(true);
      rc = (Integer) finish.invoke(null, out, rc);
    } catch (Exception e) {
      out.println("{\"kind\":\"error\",\"stage\":\"class-audit\",\"message\":" + quote(String.valueOf(e)) + "}");
      return 3;
    }
    if (!loaded.isEmpty()) {
      out.println("{\"kind\":\"error\",\"stage\":\"class-audit\",\"message\":"
          + quote("processing classes with compile problems were loaded: " + loaded) + "}");
      return 3;
    }
    return rc;
  }
}
