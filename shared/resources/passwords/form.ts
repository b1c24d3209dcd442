/**
 * The hosted reset form: the page the reset mail links to. It reads the user id, token and
 * environment from the link's fragment (never sent to a server), asks for the new password
 * twice and posts it to POST /users/<id>/actions/reset-password, then says in plain words what
 * happened. Static, so its inline script and style are pinned by hash in the page's CSP.
 */
import { createHash } from 'node:crypto';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font:inherit;cursor:pointer}
#status{margin-top:1.25rem;padding:.75rem;border-radius:.3rem}#status:empty{display:none}
.error{background:#fdecea;color:#8a1c1c}.success{background:#e8f5e9;color:#1b5e20}`;

const SCRIPT = `(function () {
  var params = new URLSearchParams(location.hash.slice(1));
  var form = document.getElementById('reset');
  var status = document.getElementById('status');
  function say(kind, text) { status.className = kind; status.textContent = text; }
  if (!params.get('user') || !params.get('token')) {
    say('error', 'This link is incomplete. Open the link from the e-mail again, or ask for a new one.');
    form.hidden = true;
    return;
  }
  var messages = {
    404: 'This link is not valid, or it has been used already. Ask for a new password reset e-mail.',
    401: 'This link has expired. Ask for a new password reset e-mail.',
    403: 'This account does not allow you to set your first password yourself. Ask an administrator to set a temporary password.',
    429: 'Too many attempts. Wait a little and try again.'
  };
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var password = form.password.value;
    if (password !== form.confirmation.value) { say('error', 'The two passwords are not the same.'); return; }
    var headers = { 'Content-Type': 'application/vnd.api+json', 'Accept': 'application/vnd.api+json' };
    if (params.get('environment')) headers['Service-Environment'] = params.get('environment');
    form.submit.disabled = true;
    say('', 'Saving...');
    fetch(location.pathname.replace(/\\/password-reset$/, '/users/' + encodeURIComponent(params.get('user')) + '/actions/reset-password'), {
      method: 'POST',
      headers: headers,
      body: JSON.stringify({ meta: { passwordResetToken: params.get('token'), newPassword: password } })
    }).then(function (response) {
      if (response.ok) {
        form.hidden = true;
        say('success', 'Your password has been changed. You can now log in with it.');
        history.replaceState(null, '', location.pathname);
        return;
      }
      return response.json().then(function (body) {
        var detail = body && body.errors && body.errors[0] && body.errors[0].detail;
        say('error', messages[response.status] || detail || 'The password could not be changed.');
      });
    }).catch(function () {
      say('error', 'The service could not be reached. Check your connection and try again.');
    }).then(function () { form.submit.disabled = false; });
  });
})();`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Choose a new password</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Choose a new password</h1>
<form id="reset">
<label for="password">New password (at least 8 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<label for="confirmation">The same password again</label>
<input id="confirmation" name="confirmation" type="password" autocomplete="new-password" minlength="8" required>
<button id="submit" name="submit" type="submit">Set password</button>
</form>
<p id="status" role="status"></p>
<script>${SCRIPT}</script>
</body>
</html>
`;

export const resetFormPage = {
  body: PAGE,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; script-src ${hash(SCRIPT)}; style-src ${hash(STYLE)}; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  },
};
