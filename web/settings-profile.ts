import { ApiError, callApi } from './api.js';

/** `/settings/profile`: changes the viewer's name, or password with the current one, through PATCH /v1/user. */

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function submitTo(form: HTMLFormElement, status: HTMLElement, body: (fields: FormData) => object, done: string): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    status.textContent = '';
    callApi('PATCH', '/v1/user', body(new FormData(form))).then(
      () => {
        status.textContent = done;
        if (form.querySelector('input[type="password"]') !== null) form.reset();
      },
      (error: unknown) => (status.textContent = error instanceof ApiError ? error.message : 'The server could not be reached.'),
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
