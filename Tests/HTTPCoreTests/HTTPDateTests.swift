import HTTPCore
import Testing

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate a server writes, the three forms a recipient
/// reads.
@Suite struct HTTPDateTests {
    /// RFC 9110's own example instant, 784111777.
    static let example: Int64 = 784_111_777

    /// The example of §5.6.7 in all three forms, and IMF-fixdate written back.
    @Test func theSpecificationsExample() {
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Self.example)
    }

    /// Written dates read back, across leap days, the epoch and the years SignInSim's worlds use.
    @Test(arguments: [Int64(0), 951_782_400, 1_709_164_800, 1_800_000_000, 4_102_444_799, -86_400])
    func roundTrip(seconds: Int64) {
        #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
    }

    /// Weekdays and padding as IMF-fixdate requires.
    @Test func format() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    /// Anything else is nil, never a guess.
    @Test(arguments: [
        "", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 CET",
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49:37 94",
        String(repeating: "Sun, ", count: 20),
    ])
    func refused(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
