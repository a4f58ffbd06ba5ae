import type { Page } from 'playwright-core';

/** Types the username and password into the login form on the page and presses "Sign in". */
export async function signInWithPassword(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
