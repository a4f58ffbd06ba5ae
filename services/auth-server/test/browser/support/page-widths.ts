/** Screenshots at 360 and 1280 px, phone and laptop: the widths every page is checked at. */
export const PAGE_WIDTHS = [
  { width: 360, height: 740 },
  { width: 1280, height: 800 },
];
