/**
 * The parts the settings pages' browser code fills in: the panel showing a value this once (a key, an
 * invitation link) with its copy button, and a confirmation dialog for what cannot be undone.
 */

export function ShownOnce({ id, title, warning, label }: { id: string; title: string; warning: string; label: string }) {
  return (
    <div id={`${id}-created`} class="card" hidden>
      <h2>{title}</h2>
      <p role="alert" class="alert">
        {warning}
      </p>
      <div class="field">
        <label for={`${id}-value`}>{label}</label>
        <input id={`${id}-value`} type="text" readOnly />
      </div>
      <button type="button" id={`${id}-copy`}>
        Copy
      </button>
      <span role="status" id={`${id}-copied`}></span>
    </div>
  );
}

export function ConfirmDialog({ id, title, confirm }: { id: string; title: string; confirm: string }) {
  return (
    <dialog id={id} aria-labelledby={`${id}-title`}>
      <form method="dialog">
        <h2 id={`${id}-title`}>{title}</h2>
        <p id={`${id}-text`}></p>
        <button type="submit" value="confirm" class="danger">
          {confirm}
        </button>{' '}
        <button type="submit" value="cancel" class="secondary" autofocus>
          Cancel
        </button>
      </form>
    </dialog>
  );
}
