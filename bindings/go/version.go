package mfa

// #include <mfa.h>
import "C"

// HeaderVersion is the version of the mfa.h this package was compiled
// against, as MAJOR * 10000 + MINOR * 100 + PATCH.
const HeaderVersion = C.MFA_VERSION_NUMBER

// Version returns the version of the libmfa that is loaded, as
// MAJOR * 10000 + MINOR * 100 + PATCH; compare it with HeaderVersion.
func Version() int { return int(C.mfa_version()) }

// VersionString returns the loaded libmfa's version as "MAJOR.MINOR.PATCH".
func VersionString() string { return C.GoString(C.mfa_version_string()) }
