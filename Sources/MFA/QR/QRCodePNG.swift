extension QRCode {
    /// The QR code as a PNG image: 1-bit grayscale, black modules on white,
    /// square, `(size + 2 * border) * scale` pixels per side.
    ///
    /// Serve it as `image/png`, or embed it in a page as a
    /// `data:image/png;base64,...` URL.
    /// - Parameters:
    ///   - scale: pixels per module, 1 to 32; 8 by default.
    ///   - border: the light quiet zone around the symbol, in modules, 0 to 16;
    ///     4 by default, as the QR specification asks.
    /// - Returns: the bytes of the PNG file.
    /// - Throws: `invalidArgument` for a scale or border out of range;
    ///   `outOfMemory` or `internal` if zlib fails.
    public func png(scale: Int = 8, border: Int = 4) throws(MFAError) -> [UInt8] {
        let layout = try QRCodeLayout(self, scale: scale, border: border)
        let side = layout.pixelsPerSide
        let rowBytes = (side + 7) / 8
        let lineLength = 1 + rowBytes  // filter byte 0 (none), then the pixels

        // A light scanline; the quiet-zone rows and the padding bits stay light.
        var light = [UInt8](repeating: 0xFF, count: lineLength)
        light[0] = 0
        var scanlines: [UInt8] = []
        scanlines.reserveCapacity(lineLength * side)
        for _ in 0..<(border * scale) { scanlines += light }
        for y in 0..<size {
            var line = light
            for x in 0..<size where isDark(x: x, y: y) {
                let first = (border + x) * scale
                for pixel in first..<(first + scale) {
                    line[1 + pixel / 8] &= ~(0x80 >> UInt8(pixel % 8))
                }
            }
            for _ in 0..<scale { scanlines += line }
        }
        for _ in 0..<(border * scale) { scanlines += light }

        return try PNGEncoder.grayscale1Bit(width: side, height: side, scanlines: scanlines)
    }
}
