extension QRCode {
    /// The QR code as text for a terminal, two module rows per line with the
    /// half blocks `▀`, `▄`, `█` and space, one character per module column.
    ///
    /// Terminal cells are about twice as tall as wide, so two rows per line keep
    /// the modules square. By default a glyph's ink is a **dark** module and a
    /// space a light one: that reads correctly where text is dark on a light
    /// background, the QR code's own colours, and the quiet zone is the
    /// terminal's light background. Terminals that draw light text on a dark
    /// background would show that image in negative, which many phone readers
    /// cannot scan; pass `inverted: true` there, so that the ink draws the
    /// **light** modules and the quiet zone, and the dark background shows
    /// through as the dark modules.
    ///
    /// With an odd number of rows, the lower half of the last line is light,
    /// like the quiet zone. Each line ends with `"\n"`.
    /// - Parameters:
    ///   - border: the quiet zone in modules; 2 by default (enough for most
    ///     readers and compact on screen). Values outside ``borderRange`` are
    ///     clamped to it.
    ///   - inverted: `true` when the terminal draws light text on a dark background.
    /// - Returns: `(size + 2 * border + 1) / 2` lines of `size + 2 * border` characters each.
    public func terminalText(border: Int = 2, inverted: Bool = false) -> String {
        let border = min(max(border, QRCode.borderRange.lowerBound), QRCode.borderRange.upperBound)
        let side = size + 2 * border
        // A module is inked when it is dark (normal) or light (inverted).
        func inked(_ column: Int, _ row: Int) -> Bool {
            isDark(x: column - border, y: row - border) != inverted
        }

        var text = ""
        text.reserveCapacity((side + 1) / 2 * (side * 3 + 1))
        for top in stride(from: 0, to: side, by: 2) {
            let hasBottom = top + 1 < side
            for column in 0..<side {
                let upper = inked(column, top)
                // Below the last row is outside the image: light, like the quiet zone.
                let lower = hasBottom ? inked(column, top + 1) : inverted
                switch (upper, lower) {
                case (true, true): text += "█"
                case (true, false): text += "▀"
                case (false, true): text += "▄"
                case (false, false): text += " "
                }
            }
            text += "\n"
        }
        return text
    }
}
