// Saved as Windows-1252 by an old editor.
export const MENU_TITLE = "Menu du café";
