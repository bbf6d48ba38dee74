#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT as a request to stop between batches: the first Ctrl-C sets a
/// flag the long operations check after each batch; a second one ends
/// the process at once (a batch in flight then rolls back).
enum Interrupt {
    private static let requested = Atomic<Bool>(false)

    /// Whether a stop was asked for.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Installs the handler.
    static func install() {
        signal(SIGINT) { _ in
            if Interrupt.requested.exchange(true, ordering: .relaxed) {
                signal(SIGINT, SIG_DFL)
                raise(SIGINT)
            }
        }
    }
}
