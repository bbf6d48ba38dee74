// Security keys and passkeys (WebAuthn): the browser's half of the two ceremonies.
//
// A form marked data-webauthn="create" (register) or "get" (sign in) carries
// libmfa's options in data-webauthn-options: JSON whose binary fields
// (challenge, user id, credential ids) are base64url text. When the form is
// sent, this script decodes them, calls navigator.credentials.create() or
// .get(), and puts the credential in its JSON form (what credential.toJSON()
// gives, built here when the browser lacks toJSON) into the form's hidden
// "credential" field; then it sends the form. The server, through libmfa,
// verifies everything: nothing here is trusted.
//
// A form marked data-webauthn="passkey" signs in with a passkey alone. Its
// options name no user; the browser offers the passkeys it holds for this
// site two ways: in the autofill of the page's field marked
// autocomplete="username webauthn" (a request with mediation "conditional",
// made when that field is first touched or clicked, so that a page only
// passed through makes none), and in its own dialog when the form's button
// is pressed (the conditional request is cancelled first: a page may have
// one request at a time).
"use strict";

(() => {
  // --- base64url (RFC 4648 §5, no padding) --------------------------------------------

  const ALPHABET = /^[A-Za-z0-9_-]*$/;

  function encode(buffer) {
    const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function decode(text) {
    if (typeof text !== "string" || !ALPHABET.test(text) || text.length % 4 === 1) {
      throw new TypeError("not base64url: " + String(text).slice(0, 40));
    }
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  // --- options in, credential out -------------------------------------------------------

  function descriptors(list) {
    return (list || []).map((item) => Object.assign({}, item, {id: decode(item.id)}));
  }

  // PublicKeyCredentialCreationOptionsJSON -> PublicKeyCredentialCreationOptions
  function creationOptions(json) {
    return Object.assign({}, json, {
      challenge: decode(json.challenge),
      user: Object.assign({}, json.user, {id: decode(json.user.id)}),
      excludeCredentials: descriptors(json.excludeCredentials),
    });
  }

  // PublicKeyCredentialRequestOptionsJSON -> PublicKeyCredentialRequestOptions
  function requestOptions(json) {
    return Object.assign({}, json, {
      challenge: decode(json.challenge),
      allowCredentials: descriptors(json.allowCredentials),
    });
  }

  // The credential as credential.toJSON() gives it (WebAuthn Level 3 §5.1.8).
  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") return credential.toJSON();
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: encode(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
      response: {clientDataJSON: encode(response.clientDataJSON)},
    };
    if (response.attestationObject) {  // AuthenticatorAttestationResponse
      json.response.attestationObject = encode(response.attestationObject);
      json.response.transports = response.getTransports ? response.getTransports() : [];
      if (response.getAuthenticatorData) json.response.authenticatorData = encode(response.getAuthenticatorData());
      if (response.getPublicKeyAlgorithm) json.response.publicKeyAlgorithm = response.getPublicKeyAlgorithm();
      const publicKey = response.getPublicKey ? response.getPublicKey() : null;
      if (publicKey) json.response.publicKey = encode(publicKey);
    } else {  // AuthenticatorAssertionResponse
      json.response.authenticatorData = encode(response.authenticatorData);
      json.response.signature = encode(response.signature);
      json.response.userHandle = response.userHandle ? encode(response.userHandle) : null;
    }
    return json;
  }

  // --- what the user reads when the browser says no ----------------------------------

  function explain(error, kind, options) {
    const selection = options.authenticatorSelection || {};
    const uvRequired = (kind === "create" ? selection.userVerification : options.userVerification) === "required";
    const nothing = kind === "create" ? "Nothing was registered" : "You are not signed in yet";
    let text;
    switch (error.name) {
      case "NotAllowedError":
        text = nothing + ": the request was cancelled or timed out" +
          (kind === "get" ? ", or this is not the key you registered" +
            ((options.allowCredentials || []).length ? "" : " (or this device holds no passkey of this site)") : "") +
          (uvRequired ? ", or your key cannot confirm it's you: this site requires a key that checks a PIN, " +
                        "a fingerprint or a face" : "") + ". Try again.";
        break;
      case "InvalidStateError":
        text = "This key is already one of your second factors.";
        break;
      case "SecurityError":
        text = "Your browser refused: this page's address is not the one the site's keys work at.";
        break;
      case "NotSupportedError":
        text = "Your security key or browser does not support what this site asks for.";
        break;
      default:
        text = nothing + ": " + (error.message || "the browser could not use a security key") + ".";
    }
    return text + " (" + (error.name || "Error") + ")";
  }

  // --- the forms ------------------------------------------------------------------------

  // Sign-in with a passkey alone: the autofill (conditional mediation) and the button.
  function wirePasskey(form) {
    const field = form.querySelector("input[name=credential]");
    const message = form.querySelector(".webauthn-error");
    const button = form.querySelector("button[type=submit]");
    const username = document.querySelector("input[autocomplete~=webauthn]");
    const options = JSON.parse(form.dataset.webauthnOptions);
    let pending = null;  // the AbortController of the conditional request, while there is one

    function send(credential) {
      field.value = JSON.stringify(credentialJSON(credential));
      form.submit();
    }

    async function offerInAutofill() {
      if (pending || !window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable ||
          !(await PublicKeyCredential.isConditionalMediationAvailable())) return;
      pending = new AbortController();
      try {
        send(await navigator.credentials.get({publicKey: requestOptions(options), mediation: "conditional",
                                              signal: pending.signal}));
      } catch (error) {
        if (error.name !== "AbortError") {  // the user chose none: the password form stays
          message.textContent = explain(error, "get", options);
          message.hidden = false;
        }
      } finally {
        pending = null;
      }
    }

    if (username) username.addEventListener("pointerdown", offerInAutofill, {once: true});
    form.addEventListener("submit", async (event) => {
      if (field.value) return;
      event.preventDefault();
      message.hidden = true;
      try {
        if (!window.PublicKeyCredential || !navigator.credentials) {
          throw new DOMException("This browser does not support passkeys.", "NotSupportedError");
        }
        if (pending) pending.abort();
        button.disabled = true;
        send(await navigator.credentials.get({publicKey: requestOptions(options)}));
      } catch (error) {
        message.textContent = explain(error, "get", options);
        message.hidden = false;
        button.disabled = false;
      }
    });
  }

  // Runs the ceremony of `form` and sends the form with the credential; shows why when the browser says no.
  async function run(form) {
    const kind = form.dataset.webauthn;
    const field = form.querySelector("input[name=credential]");
    const message = form.querySelector(".webauthn-error");
    const button = form.querySelector("button[type=submit]");
    message.hidden = true;
    let options = {};
    try {
      options = JSON.parse(form.dataset.webauthnOptions);
      if (!window.PublicKeyCredential || !navigator.credentials) {
        throw new DOMException("This browser does not support security keys or passkeys.", "NotSupportedError");
      }
      button.disabled = true;
      const credential = kind === "create"
        ? await navigator.credentials.create({publicKey: creationOptions(options)})
        : await navigator.credentials.get({publicKey: requestOptions(options)});
      field.value = JSON.stringify(credentialJSON(credential));
      form.submit();
      return true;
    } catch (error) {
      message.textContent = explain(error, kind, options);
      message.hidden = false;
      button.disabled = false;
      return false;
    }
  }

  function wire(form) {
    const field = form.querySelector("input[name=credential]");
    form.addEventListener("submit", (event) => {
      if (field.value) return;  // the credential is in: let the form go
      event.preventDefault();
      run(form);
    });
    // The key signed in with last time: its prompt starts by itself (the hint chooser marks it).
    if (form.dataset.webauthnAuto === "yes") {
      document.body.dataset.webauthnAuto = "started";
      run(form).then((sent) => { if (!sent) document.body.dataset.webauthnAuto = "failed"; });
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const form of document.querySelectorAll("form[data-webauthn]")) {
      if (form.dataset.webauthn === "passkey") wirePasskey(form);
      else wire(form);
    }
  });
})();
