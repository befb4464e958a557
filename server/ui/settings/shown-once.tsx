import { ScrollRegion, type RegionName } from '../scroll-region.js';

/**
 * The parts the settings pages' browser code fills in: the panel showing a value this once (a key, an
 * invitation link) with its copy button, a confirmation dialog for what cannot be undone, and the list table.
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

/** A list the browser code fills into `rowsId`: a scrolling region named by `labelledBy` (a heading's id) or `label`, its last column the row's actions. */
export function ListTable({ tableId, rowsId, columns, ...name }: { tableId: string; rowsId: string; columns: string[] } & RegionName) {
  return (
    <ScrollRegion {...name}>
      <table id={tableId}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody id={rowsId}></tbody>
      </table>
    </ScrollRegion>
  );
}
