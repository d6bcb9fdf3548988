export const MAX_SEATS = 500;
