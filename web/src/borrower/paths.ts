/** The borrower app lives under /app (docs/ARCHITECTURE.md): the server answers app/index.html for every path there. */
export const APP_BASENAME = '/app';
