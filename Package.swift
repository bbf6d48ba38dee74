// swift-tools-version:6.0
import PackageDescription

/// libmfa.so links the Swift runtime statically and exports only the C API.
let libraryLinkFlags = [
    "-static-stdlib",
    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/MFAExports/libmfa.map",
]

let package = Package(
    name: "libmfa",
    products: [
        // The C library, libmfa.so: the @c exports declared in include/mfa.h.
        .library(name: "mfa", type: .dynamic, targets: ["MFAExports"]),
        // The Swift API, for Swift hosts.
        .library(name: "MFA", targets: ["MFA"]),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CNettle", pkgConfig: "nettle",
                       providers: [.apt(["nettle-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        // libpq's header only: libmfa loads libpq.so.5 with dlopen when a
        // postgres:// store is opened (no pkg-config, whose flags would link it).
        .systemLibrary(name: "CPQ", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // WebAuthn: libcbor reads CBOR; nettle's public-key half (hogweed, with
        // GMP) checks ECDSA P-256 and RSA signatures.
        .systemLibrary(name: "CCbor", pkgConfig: "libcbor",
                       providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "CHogweed", pkgConfig: "hogweed",
                       providers: [.apt(["nettle-dev", "libgmp-dev"])]),
        // GnuTLS's header only: libmfa loads libgnutls.so.30 with dlopen when a
        // WebAuthn attestation carries an X.509 certificate.
        .systemLibrary(name: "CGnuTLS", providers: [.apt(["libgnutls28-dev"])]),
        // libxml2's headers and the guard that refuses DTDs and entities (a C
        // target, not a system library: its include/libxml points at Debian's
        // libxml2-dev headers, so that nothing links libxml2; libmfa loads
        // libxml2.so.2 with dlopen when a PSKC file is read).
        .target(name: "CXML2"),
        // PKCS#11's types (p11-kit's header; no library linked: modules are loaded with dlopen).
        .systemLibrary(name: "CP11", providers: [.apt(["libp11-kit-dev"])]),
        // glibc's secure_getenv and AT_SECURE (Swift's Glibc module leaves them out).
        .systemLibrary(name: "CSystem"),
        .systemLibrary(name: "CMFATypes", path: "include"),
        .target(name: "MFA", dependencies: ["CSodium", "CNettle", "CSQLite", "CPQ", "CQRencode", "CZlib",
                                            "CCbor", "CHogweed", "CGnuTLS", "CXML2", "CP11", "CSystem"]),
        .target(name: "MFAExports", dependencies: ["MFA", "CMFATypes"], exclude: ["libmfa.map"],
                linkerSettings: [.unsafeFlags(libraryLinkFlags)]),
        .testTarget(name: "MFATests", dependencies: ["MFA", "CMFATypes", "CSodium", "CNettle"]),
    ]
)
