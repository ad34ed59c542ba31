package converters

import "time"

// RecordClockEpoch is where the record clock starts: 2000-01-01T00:00:00Z.
// A log that records no times (Cursor's agent transcripts) is written to
// its trace on this clock, one millisecond per input line, so that viewers
// show its spans in order and at one recognisable date instead of at 0
// (1970), and the same input always gives the same trace. The receipt
// carries no times for it and says so (convert.audit_gaps: no_timestamps).
var RecordClockEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// RecordClock is the record clock's time, in unix nanoseconds, of the line
// at position seq of an input group (Record.Seq).
func RecordClock(seq int64) int64 {
	return RecordClockEpoch.UnixNano() + seq*int64(time.Millisecond)
}
