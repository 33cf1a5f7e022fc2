-- The dashboard (issue 18 item 10; docs/PERFORMANCE.md, "Dashboard") reads one market's last 30 days: orders placed,
-- timeline entries (approvals, rejections, the status changes behind the open and overdue counts) and payouts in a
-- window of time. Without these, each of those reads scans its whole table (1,000,000 orders: 3-4 million timeline
-- entries). Plain B-tree indexes, the same on SQLite and PostgreSQL.
CREATE INDEX order_events_at ON order_events (at);
CREATE INDEX payouts_created ON payouts (created_at);
CREATE INDEX orders_market_created ON orders (market, created_at);
