/* global window, document, navigator, fetch, atob, btoa */
/*
 * Passkeys (WebAuthn Level 3) on the sign-in, second-factor and account pages: the only script the pages
 * load, from their own origin (CSP script-src 'self'; no inline script). Progressive: the forms it drives are
 * hidden until it runs in a browser with WebAuthn, so without JavaScript the pages work as before (password
 * sign-in, a TOTP code); where a passkey is the only way on, a [data-passkey-unsupported] note says what is
 * needed, and this script hides it.
 *
 * A form marked data-passkey="create" or "get": on submit, POST its CSRF token as JSON to data-options,
 * hand the answer to navigator.credentials.create/get, put the credential as JSON (WebAuthn L3 §5.1
 * toJSON shapes, base64url) in its hidden "credential" field and submit it for real: the server verifies
 * and answers with a page or a 303 like any form. Messages come translated in data-* attributes.
 */
(function () {
  'use strict';

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = '';
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function fromBase64url(value) {
    var base64 = value.replace(/-/g, '+').replace(/_/g, '/');
    while (base64.length % 4) base64 += '=';
    var text = atob(base64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes.buffer;
  }

  function descriptors(list) {
    return (list || []).map(function (item) {
      return { type: item.type, id: fromBase64url(item.id), transports: item.transports };
    });
  }

  function creationOptions(json) {
    var options = Object.assign({}, json);
    options.challenge = fromBase64url(json.challenge);
    options.user = Object.assign({}, json.user, { id: fromBase64url(json.user.id) });
    options.excludeCredentials = descriptors(json.excludeCredentials);
    delete options.hints;
    return { publicKey: options };
  }

  function requestOptions(json) {
    var options = Object.assign({}, json);
    options.challenge = fromBase64url(json.challenge);
    options.allowCredentials = descriptors(json.allowCredentials);
    delete options.hints;
    return { publicKey: options };
  }

  function credentialJson(credential) {
    var response = credential.response;
    var out = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: { clientDataJSON: toBase64url(response.clientDataJSON) },
    };
    if (response.attestationObject) {
      out.response.attestationObject = toBase64url(response.attestationObject);
      if (response.getTransports) out.response.transports = response.getTransports();
    } else {
      out.response.authenticatorData = toBase64url(response.authenticatorData);
      out.response.signature = toBase64url(response.signature);
      if (response.userHandle) out.response.userHandle = toBase64url(response.userHandle);
    }
    return JSON.stringify(out);
  }

  function say(form, message) {
    var status = form.querySelector('[data-passkey-status]');
    if (status) status.textContent = message || '';
  }

  function start(form) {
    var kind = form.getAttribute('data-passkey');
    var busy = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      busy = true;
      say(form, form.getAttribute('data-msg-waiting'));
      var csrf = form.querySelector('input[name="csrf_token"]').value;
      fetch(form.getAttribute('data-options'), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ csrf_token: csrf }),
      })
        .then(function (res) {
          if (!res.ok) throw new Error('options ' + res.status);
          return res.json();
        })
        .then(function (json) {
          return kind === 'create'
            ? navigator.credentials.create(creationOptions(json))
            : navigator.credentials.get(requestOptions(json));
        })
        .then(function (credential) {
          if (!credential) throw new Error('no credential');
          form.querySelector('input[name="credential"]').value = credentialJson(credential);
          form.submit();
        })
        .catch(function () {
          busy = false;
          say(form, form.getAttribute('data-msg-failed'));
        });
    });
  }

  if (!window.PublicKeyCredential || !navigator.credentials) return;
  var forms = document.querySelectorAll('form[data-passkey]');
  for (var i = 0; i < forms.length; i++) start(forms[i]);
  var shown = document.querySelectorAll('[data-passkey-section]');
  for (var j = 0; j < shown.length; j++) shown[j].hidden = false;
  var notes = document.querySelectorAll('[data-passkey-unsupported]');
  for (var k = 0; k < notes.length; k++) notes[k].hidden = true;
})();
