/// The checked geometry of one rendering: the symbol plus its quiet zone, scaled.
struct QRCodeLayout {
    /// Pixels (or SVG user units times scale) per module.
    let scale: Int
    /// Quiet-zone width in modules on each side.
    let border: Int
    /// Modules per side including the quiet zone.
    let modulesPerSide: Int

    /// Pixels per side: `modulesPerSide * scale`.
    var pixelsPerSide: Int { modulesPerSide * scale }

    /// Validates `scale` and `border` for `code`.
    /// - Throws: `invalidArgument` when either is outside ``QRCode/scaleRange`` or ``QRCode/borderRange``.
    init(_ code: QRCode, scale: Int, border: Int) throws(MFAError) {
        guard QRCode.scaleRange.contains(scale) else {
            throw MFAError(.invalidArgument, "the QR code scale must be \(QRCode.scaleRange.lowerBound) to \(QRCode.scaleRange.upperBound), not \(scale)")
        }
        guard QRCode.borderRange.contains(border) else {
            throw MFAError(.invalidArgument, "the QR code border must be \(QRCode.borderRange.lowerBound) to \(QRCode.borderRange.upperBound), not \(border)")
        }
        self.scale = scale
        self.border = border
        modulesPerSide = code.size + 2 * border
    }
}
