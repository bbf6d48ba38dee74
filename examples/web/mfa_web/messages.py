"""What the user reads when libmfa refuses something.

Every libmfa failure is an exception of its own class with a stable name;
the page shows a sentence for people, and the name in small print for
whoever reports the problem. Never a stack trace.
"""

from __future__ import annotations

from typing import Dict, Optional, Type

import libmfa

#: Sentences for errors, by exception class.
Sentences = Dict[Type[libmfa.MFAError], str]

MESSAGES: Sentences = {
    libmfa.InvalidVerificationCodeError: "That code is not right, or it was already used. "
                                         "Check the code (or wait for the next one) and try again.",
    libmfa.CodeExpiredError: "That code has expired. Ask for a new one.",
    libmfa.InvalidSessionError: "This step has expired or was already completed. Please start again.",
    libmfa.UserTokenExpiredError: "Your session ended because the account's second factors changed. "
                                  "Please sign in again.",
    libmfa.TooManyAttemptsError: "Too many attempts. Wait a little and try again.",
    libmfa.QuotaExceededError: "Too many text messages were sent. Try again later.",
    libmfa.InvalidPhoneNumberError: "Enter the number in international format: + then the country code and "
                                    "the number (for example +1 510 555 1234).",
    libmfa.InvalidEmailError: "Enter an email address such as name@example.com.",
    libmfa.EmailSendFailedError: "The email could not be sent. Try again later.",
    libmfa.DeviceNotFoundError: "That browser is not remembered (any more).",
    libmfa.SecondFactorExistsError: "This phone number is already one of your second factors.",
    libmfa.SecondFactorLimitExceededError: "You have the maximum number of second factors. Remove one first.",
    libmfa.UnverifiedEmailError: "Verify your email address before adding a second factor.",
    libmfa.OperationNotAllowedError: "This kind of second factor is not enabled on this server.",
    libmfa.MissingAppCredentialError: "This request did not come from this site's page (the app check is "
                                      "missing). Reload the page and try again.",
    libmfa.InvalidAppCredentialError: "The app check failed or expired. Reload the page and try again.",
    libmfa.SMSSendFailedError: "The text message could not be sent. Try again later.",
    libmfa.MFAEnrollmentNotFoundError: "That second factor does not exist (any more).",
    libmfa.RequiresRecentLoginError: "Please confirm it's you by signing in again.",
    libmfa.EnrollmentRequiredError: "This server requires a second factor, and your account has none. "
                                    "Ask an administrator to enroll one for you.",
    libmfa.UnsupportedFirstFactorError: "This way of signing in cannot be combined with a second factor.",
    libmfa.InvalidArgumentError: "That input is not valid. Check it and try again.",
    libmfa.TenantMismatchError: "This step belongs to another site. Please start again.",
    libmfa.CredentialClonedError: "This security key or passkey answered with a signature counter lower than "
                                  "before, as a copy of it would: the sign-in was refused and recorded. Use "
                                  "another second factor, and remove this one if you did not expect this.",
    libmfa.UserVerificationRequiredError: "This site requires a security key or passkey that checks it's you "
                                          "(a PIN, a fingerprint or a face), and this one did not. Use one that "
                                          "can, or set up its PIN.",
    libmfa.OriginMismatchError: "Your browser answered for another address than this site's. Open the site at "
                                "its own address and try again.",
    libmfa.RPIDMismatchError: "The security key answered for another site. Use a key registered on this site.",
    libmfa.AttestationNotTrustedError: "This site does not accept this model of security key.",
}

#: What the errors shared with codes mean for a security key or passkey (WebAuthn views pass these).
WEBAUTHN: Sentences = {
    libmfa.InvalidVerificationCodeError: "The security key's answer did not check out (a wrong signature, or "
                                         "nobody touched the key). Try again.",
    libmfa.InvalidArgumentError: "Your browser's answer was not a security key's credential. Try again.",
    libmfa.InvalidSessionError: "This request is no longer valid (it expired, was used, or was made for "
                                "another page). Try again with the new one.",
    libmfa.SecondFactorExistsError: "This security key or passkey is already registered.",
}

#: What a passkey sign-in's refusals mean (the passkey views pass these). libmfa answers every
#: refusal that could tell whether an account exists in one way: so does the page.
PASSKEY: Sentences = {
    libmfa.InvalidVerificationCodeError: "This passkey was not accepted. Sign in with your email and password, "
                                         "or use another passkey.",
    libmfa.InvalidArgumentError: "Your browser's answer was not a passkey's. Try again, or sign in with your "
                                 "email and password.",
    libmfa.InvalidSessionError: "This sign-in page has expired or was already used. Try again.",
    libmfa.OperationNotAllowedError: "Signing in with a passkey is not enabled on this server.",
    libmfa.UserVerificationRequiredError: "Signing in with a passkey needs it to check it's you (a PIN, a "
                                          "fingerprint or a face), and this one did not.",
    libmfa.RPIDMismatchError: "This passkey belongs to another site.",
}

#: For every other failure (storage, configuration, bugs).
FALLBACK = "The server could not complete this request. Try again later."


def for_error(error: libmfa.MFAError, sentences: Optional[Sentences] = None) -> str:
    """The sentence for a libmfa error (from ``sentences`` first, when given)."""
    for cls in type(error).__mro__:
        if sentences and cls in sentences:
            return sentences[cls]
        if cls in MESSAGES:
            return MESSAGES[cls]
    return FALLBACK


def flash(error: libmfa.MFAError, sentences: Optional[Sentences] = None) -> None:
    """Show the error's sentence on the next page, with its stable name in brackets."""
    import flask

    flask.flash("%s (%s)" % (for_error(error, sentences), error.name), "error")
