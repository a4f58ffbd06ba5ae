/** Screenshots at 360 and 1280 px, phone and laptop: the widths every page is checked at. */
export const PAGE_WIDTHS = [
  { width: 360, height: 740 },
  { width: 1280, height: 800 },
];

/** The admin console's widths: taller pages, as its tables are. */
export const CONSOLE_WIDTHS = [
  { width: 360, height: 900 },
  { width: 1280, height: 900 },
];
