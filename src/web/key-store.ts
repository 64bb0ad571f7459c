/** Where the page keeps the API key: this tab's session storage (gone when the tab closes). */
export const API_KEY_ITEM = 'openjarvis.apiKey';

/** The key kept for this tab, if any (undefined when storage is unavailable). */
export function loadKey(storage: Pick<Storage, 'getItem'> | undefined): string | undefined {
  try {
    return storage?.getItem(API_KEY_ITEM) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the key for this tab (or forgets it with undefined); storage failures only lose the key on reload. */
export function saveKey(
  storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined,
  key: string | undefined,
): void {
  try {
    if (key === undefined) storage?.removeItem(API_KEY_ITEM);
    else storage?.setItem(API_KEY_ITEM, key);
  } catch {
    // Private modes may refuse storage: the key then lasts until the page reloads.
  }
}

/** This tab's session storage, or undefined where the browser refuses it. */
export function tabStorage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}
