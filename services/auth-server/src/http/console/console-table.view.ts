import { html, type HtmlValue, type SafeHtml } from '../views/html';

/**
 * One console list: a captioned table in a keyboard-scrollable box (tabindex 0: a wide table on a narrow
 * screen scrolls with the arrow keys, WCAG 2.1.1), column headers scoped to their columns; `empty` (when
 * given) stands instead of a table with no rows.
 */
export function consoleTable(table: {
  caption: string;
  headers: readonly string[];
  rows: readonly HtmlValue[];
  empty?: string;
}): SafeHtml {
  if (table.rows.length === 0 && table.empty !== undefined) return html`<p>${table.empty}</p>`;
  return html`<div class="table-scroll" tabindex="0">
    <table class="console-table">
      <caption>
        ${table.caption}
      </caption>
      <thead>
        <tr>
          ${table.headers.map((header) => html`<th scope="col">${header}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${table.rows}
      </tbody>
    </table>
  </div>`;
}
