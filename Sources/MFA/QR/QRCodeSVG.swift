extension QRCode {
    /// The QR code as a standalone SVG document: a white background and one
    /// black `<path>` that draws each horizontal run of dark modules.
    ///
    /// The `viewBox` counts modules (quiet zone included), so the image scales
    /// without blur; `width` and `height` are `(size + 2 * border) * scale`,
    /// and `shape-rendering="crispEdges"` keeps module edges sharp. There is no
    /// XML declaration, so the text can be written to a `.svg` file or inlined in HTML.
    /// - Parameters:
    ///   - scale: the displayed size of one module in CSS pixels, 1 to 32; 8 by default.
    ///   - border: the light quiet zone around the symbol, in modules, 0 to 16;
    ///     4 by default, as the QR specification asks.
    /// - Returns: the SVG document.
    /// - Throws: `invalidArgument` for a scale or border out of range.
    public func svg(scale: Int = 8, border: Int = 4) throws(MFAError) -> String {
        let layout = try QRCodeLayout(self, scale: scale, border: border)
        let side = String(layout.modulesPerSide)
        let pixels = String(layout.pixelsPerSide)

        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                let start = x
                while x < size, isDark(x: x, y: y) { x += 1 }
                let run = String(x - start)
                path += "M\(start + border) \(y + border)h\(run)v1h-\(run)z"
            }
        }

        return "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(pixels)\" height=\"\(pixels)\" "
            + "viewBox=\"0 0 \(side) \(side)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(path)\"/></svg>\n"
    }
}
