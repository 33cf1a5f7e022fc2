-- The review claims an operator holds, found without reading every order: disabling an operator, or taking their
-- reviewer role away, releases them at once (a claim of somebody who can no longer decide blocks the order's review
-- for its 30 minutes). Only claimed orders are in it.
CREATE INDEX orders_claimed_by ON orders (claimed_by) WHERE claimed_by IS NOT NULL;
