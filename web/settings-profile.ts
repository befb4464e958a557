import { callApi } from './api.js';
import { byId, problemText } from './settings-parts.js';

/** `/settings/profile`: changes the viewer's name, or password with the current one, through PATCH /v1/user. */


function submitTo(form: HTMLFormElement, status: HTMLElement, body: (fields: FormData) => object, done: string): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    status.textContent = '';
    callApi('PATCH', '/v1/user', body(new FormData(form))).then(
      () => {
        status.textContent = done;
        if (form.querySelector('input[type="password"]') !== null) form.reset();
      },
      (error: unknown) => (status.textContent = problemText(error)),
    );
  });
}

submitTo(byId('profile-form'), byId('profile-status'), (fields) => ({ name: String(fields.get('name')) }), 'Saved.');
submitTo(
  byId('password-form'),
  byId('password-status'),
  (fields) => ({ current_password: String(fields.get('current_password')), password: String(fields.get('password')) }),
  'Password changed; your other sessions are signed out.',
);
