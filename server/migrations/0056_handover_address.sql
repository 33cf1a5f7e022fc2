-- A hand-over code is bound to the address the native shell asked for it from (as the rate limits key addresses: an
-- IPv4 address, or an IPv6 /64), stored as its SHA-256: the shell's web view opens it from the same device, so the
-- same address. A code minted by somebody else and sent to a browser in a link (a redirect that mints a fresh one on
-- every click) is refused there, and signs nobody into the other's account. Codes of before (a minute's worth) have
-- none and are exchanged as before.
ALTER TABLE session_handovers ADD COLUMN client_hash TEXT;
