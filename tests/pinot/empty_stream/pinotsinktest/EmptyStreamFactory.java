package pinotsinktest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pinot.spi.data.readers.GenericRow;
import org.apache.pinot.spi.stream.*;

/** A stream of "stream.empty.partitions" partitions (default 2) that never holds a message: a REALTIME table can
 *  then be made on the test cluster, which has no stream plugin (tests/pinot/test_realtime.py). Ours. */
public class EmptyStreamFactory extends StreamConsumerFactory {
  int partitions() {
    String p = _streamConfig.getStreamConfigsMap().get("stream.empty.partitions");
    return p == null ? 2 : Integer.parseInt(p);
  }

  class Meta implements StreamMetadataProvider {
    public int fetchPartitionCount(long timeoutMillis) { return partitions(); }
    public StreamPartitionMsgOffset fetchStreamPartitionOffset(OffsetCriteria c, long t) { return new LongMsgOffset(0); }
    public List<PartitionGroupMetadata> computePartitionGroupMetadata(String clientId, StreamConfig sc,
        List<PartitionGroupConsumptionStatus> statuses, int timeoutMillis) {
      List<PartitionGroupMetadata> out = new ArrayList<>();
      for (PartitionGroupConsumptionStatus s : statuses) {
        StreamPartitionMsgOffset off = s.getEndOffset() != null ? s.getEndOffset() : s.getStartOffset();
        out.add(new PartitionGroupMetadata(s.getPartitionGroupId(), off == null ? new LongMsgOffset(0) : off));
      }
      for (int p = statuses.size(); p < partitions(); p++) out.add(new PartitionGroupMetadata(p, new LongMsgOffset(0)));
      return out;
    }
    public boolean supportsOffsetLag() { return false; }
    public void close() {}
  }

  static class Empty implements MessageBatch<byte[]> {
    final StreamPartitionMsgOffset next;
    Empty(StreamPartitionMsgOffset next) { this.next = next; }
    public int getMessageCount() { return 0; }
    public StreamMessage<byte[]> getStreamMessage(int i) { throw new IndexOutOfBoundsException(); }
    public StreamPartitionMsgOffset getOffsetOfNextBatch() { return next; }
    public long getSizeInBytes() { return 0; }
  }

  public StreamMetadataProvider createPartitionMetadataProvider(String clientId, int partition) { return new Meta(); }
  public StreamMetadataProvider createStreamMetadataProvider(String clientId) { return new Meta(); }
  public StreamPartitionMsgOffsetFactory createStreamMsgOffsetFactory() { return new LongMsgOffsetFactory(); }
  public PartitionGroupConsumer createPartitionGroupConsumer(String clientId, PartitionGroupConsumptionStatus s) {
    return new PartitionGroupConsumer() {
      public MessageBatch fetchMessages(StreamPartitionMsgOffset start, int timeoutMillis) {
        try { Thread.sleep(Math.min(timeoutMillis, 500)); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        return new Empty(start);
      }
      public void close() {}
    };
  }

  /** Never called: the stream holds no message. */
  public static class Decoder implements StreamMessageDecoder<byte[]> {
    public void init(Map<String, String> props, Set<String> fields, String topic) {}
    public GenericRow decode(byte[] payload, GenericRow dest) { return null; }
    public GenericRow decode(byte[] payload, int offset, int length, GenericRow dest) { return null; }
  }
}
