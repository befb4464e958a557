import { ScrollRegion } from '../scroll-region.js';

/** A table the browser code fills, in a region that scrolls sideways on a narrow screen, named by the heading `titleId`. */
export function ScrollTable({ titleId, columns, bodyId }: { titleId: string; columns: string[]; bodyId: string }) {
  return (
    <ScrollRegion labelledBy={titleId}>
      <table class="databases">
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody id={bodyId} />
      </table>
    </ScrollRegion>
  );
}
