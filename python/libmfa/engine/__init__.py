"""The MFA engine: configuration, enrollment, sign-in, tokens (Firebase's model).

One module per part:

* :mod:`libmfa.engine.context`: :class:`Context`, the engine on one store
  (configuration, first-factor sign-in, tokens);
* :mod:`libmfa.engine.admin`: :class:`Admin`, the operator's calls (users
  and their factors, reset, erasure, imports, key rotation), made by an actor
  the audit events record;
* :mod:`libmfa.engine.metrics`: :class:`Metrics`, the context's counters and
  latency histograms (:meth:`Context.metrics`, :meth:`Context.metrics_text`);
* :mod:`libmfa.engine.flow`: what every kind of second factor shares:
  :class:`MultiFactorSession`, :class:`MultiFactor` (enroll, list,
  unenroll), :class:`MultiFactorResolver` (hints, resolve the sign-in) and
  the base :class:`MultiFactorAssertion`;
* one module per kind of second factor, each with its generator, its
  assertion and its own C calls: :mod:`libmfa.engine.totp` (authenticator
  apps), :mod:`libmfa.engine.phone` (SMS codes) and
  :mod:`libmfa.engine.recovery_codes`, :mod:`libmfa.engine.webauthn`
  (security keys and passkeys), :mod:`libmfa.engine.email` (codes by
  email), :mod:`libmfa.engine.hotp` (HOTP tokens) and
  :mod:`libmfa.engine.yubico_otp` (YubiKeys);
* :mod:`libmfa.engine.devices`: remembered devices ("remember this device").

Quick start::

    import libmfa

    with libmfa.Context("mfa.sqlite3", master_key=key) as ctx:
        ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
        user = libmfa.User("alice", email="a@example.com", email_verified=True,
                           auth_time=int(time.time()))
        mf = ctx.multi_factor(user)
        secret = libmfa.TOTPMultiFactorGenerator.generate_secret(mf.session())
        print(secret.qr_text("a@example.com", "ACME"))
        code = input("code: ")
        info = mf.enroll(libmfa.TOTPMultiFactorGenerator.assertion_for_enrollment(secret, code))

        try:
            ctx.sign_in(user)
        except libmfa.SecondFactorRequired as error:
            resolver = error.resolver
            assertion = libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(
                resolver.hints[0].uid, input("code: "))
            result = resolver.resolve_sign_in(assertion)
"""

from .admin import (
    ALL_TENANTS,
    Admin,
    AdminFactor,
    AdminStats,
    AdminStatsRow,
    AdminUser,
    AdminUserPage,
    HardwareToken,
    HardwareTokenPage,
    ImportLine,
    ImportSummary,
    KeyRotationResult,
    SealCheck,
)
from .audit_trail import AuditChainVerification, AuditRecord, AuditVerification
from .context import Context
from .devices import DeviceToken, RememberedDevice
from .email import (
    EmailAuthCredential,
    EmailAuthProvider,
    EmailMessage,
    EmailMultiFactorAssertion,
    EmailMultiFactorGenerator,
)
from .flow import MultiFactor, MultiFactorAssertion, MultiFactorResolver, MultiFactorSession
from .hotp import HOTPMultiFactorAssertion, HOTPMultiFactorGenerator
from .metrics import OTHER_TENANTS, PROMETHEUS_CONTENT_TYPE, MetricFamily, Metrics, MetricSample
from .phone import PhoneAuthCredential, PhoneAuthProvider, PhoneMultiFactorAssertion, PhoneMultiFactorGenerator
from .recovery_codes import RecoveryCodeMultiFactorAssertion, RecoveryCodes, RecoveryCodesMultiFactorGenerator
from .totp import TOTPMultiFactorAssertion, TOTPMultiFactorGenerator, TOTPSecret
from .yubico_otp import YubicoOTPMultiFactorAssertion, YubicoOTPMultiFactorGenerator
from .webauthn import (
    WebAuthnAttestation,
    WebAuthnCredential,
    WebAuthnCredentialInfo,
    WebAuthnMultiFactorAssertion,
    WebAuthnMultiFactorGenerator,
)

__all__ = [
    "ALL_TENANTS",
    "Admin",
    "AdminFactor",
    "AdminStats",
    "AdminStatsRow",
    "AdminUser",
    "AdminUserPage",
    "AuditChainVerification",
    "AuditRecord",
    "AuditVerification",
    "Context",
    "DeviceToken",
    "EmailAuthCredential",
    "EmailAuthProvider",
    "EmailMessage",
    "EmailMultiFactorAssertion",
    "EmailMultiFactorGenerator",
    "HOTPMultiFactorAssertion",
    "HOTPMultiFactorGenerator",
    "HardwareToken",
    "HardwareTokenPage",
    "ImportLine",
    "ImportSummary",
    "KeyRotationResult",
    "MetricFamily",
    "MetricSample",
    "Metrics",
    "MultiFactor",
    "MultiFactorAssertion",
    "MultiFactorResolver",
    "MultiFactorSession",
    "OTHER_TENANTS",
    "PROMETHEUS_CONTENT_TYPE",
    "PhoneAuthCredential",
    "PhoneAuthProvider",
    "PhoneMultiFactorAssertion",
    "PhoneMultiFactorGenerator",
    "RememberedDevice",
    "RecoveryCodeMultiFactorAssertion",
    "RecoveryCodes",
    "RecoveryCodesMultiFactorGenerator",
    "SealCheck",
    "TOTPMultiFactorAssertion",
    "TOTPMultiFactorGenerator",
    "TOTPSecret",
    "WebAuthnAttestation",
    "WebAuthnCredential",
    "WebAuthnCredentialInfo",
    "WebAuthnMultiFactorAssertion",
    "WebAuthnMultiFactorGenerator",
    "YubicoOTPMultiFactorAssertion",
    "YubicoOTPMultiFactorGenerator",
]
