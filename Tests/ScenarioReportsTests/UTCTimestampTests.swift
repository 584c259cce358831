import Testing

@testable import ScenarioReports

@Suite("UTC timestamps")
struct UTCTimestampTests {
    /// Instants around the epoch, leap days and far years format as ISO 8601 with milliseconds.
    @Test("formats ISO 8601")
    func formats() {
        #expect(UTCTimestamp.iso8601(millisecondsSinceEpoch: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(millisecondsSinceEpoch: 1_714_566_896_789) == "2024-05-01T12:34:56.789Z")
        #expect(UTCTimestamp.iso8601(millisecondsSinceEpoch: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(millisecondsSinceEpoch: -1) == "1969-12-31T23:59:59.999Z")
        #expect(
            UTCTimestamp.iso8601(millisecondsSinceEpoch: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
    }

    /// Cookie dates in the IMF-fixdate and dashed forms parse; other text does not.
    @Test("parses HTTP dates")
    func parsesHTTPDates() {
        #expect(UTCTimestamp.parseHTTPDate("Wed, 21 Oct 2015 07:28:00 GMT") == 1_445_412_480_000)
        #expect(UTCTimestamp.parseHTTPDate("Wednesday, 21-Oct-15 07:28:00 GMT") == 1_445_412_480_000)
        #expect(UTCTimestamp.parseHTTPDate("Tue, 29 Feb 2000 00:00:00 GMT") == 951_782_400_000)
        #expect(UTCTimestamp.parseHTTPDate("tomorrow") == nil)
        #expect(UTCTimestamp.parseHTTPDate("Wed, 21 Foo 2015 07:28:00 GMT") == nil)
        #expect(UTCTimestamp.parseHTTPDate("Wed, 21 Oct 2015 25:28:00 GMT") == nil)
    }
}
