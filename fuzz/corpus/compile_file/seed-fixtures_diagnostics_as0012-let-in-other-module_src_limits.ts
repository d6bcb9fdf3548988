// Tuned at startup from the server config.
export let PAGE_SIZE = 25;
export const MAX_PAGE = 400;
