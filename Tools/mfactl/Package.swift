// swift-tools-version:6.0
import PackageDescription

// mfactl, the operator's command-line tool for libmfa, in a package of its
// own: it depends on libmfa (the root package, by path) and on
// swift-argument-parser, so that consumers of libmfa never resolve the
// latter.
let package = Package(
    name: "mfactl",
    dependencies: [
        .package(name: "libmfa", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(name: "mfactl", dependencies: [
            .product(name: "MFA", package: "libmfa"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
    ]
)
