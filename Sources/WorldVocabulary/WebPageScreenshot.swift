/// A picture of the sheet: a JPEG, scaled down to keep reports small.
public struct WebPageScreenshot: Hashable, Sendable {
    public var jpeg: [UInt8]
    public var width: Int
    public var height: Int

    public init(jpeg: [UInt8], width: Int, height: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
    }
}
