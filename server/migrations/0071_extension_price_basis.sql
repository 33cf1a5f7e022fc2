-- The extensions a loan had been granted when an extension payment was priced: its money buys the extension priced
-- only while that is still so. A second fee for the same extension (another tab, another method) paid after the
-- first was granted is held for finance instead of moving the due date again. Null for other payments and for those
-- priced before this was kept (they settle as before).
ALTER TABLE payments ADD COLUMN extensions_before BIGINT;
