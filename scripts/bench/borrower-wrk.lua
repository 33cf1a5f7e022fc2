-- wrk script of scripts/bench-borrower.sh: each request carries the X-Session-Id of the next seeded borrower, round
-- robin over the file named by BENCH_SESSIONS (one session id a line, or "session path" to request that borrower's own
-- path instead of wrk's: scripts/bench-scale.sh's loan plans), and every response that is not a 200 is counted by
-- status. done() prints "non-200: N" and "statuses: 200=…,401=…" after wrk's own report.
--
-- usage: BENCH_SESSIONS=sessions.txt wrk -t2 -c64 -d10s --latency -s scripts/bench/borrower-wrk.lua URL

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  local path = os.getenv("BENCH_SESSIONS")
  assert(path and path ~= "", "BENCH_SESSIONS must name the file of session ids")
  local file = assert(io.open(path, "r"))
  requests = {}
  for line in file:lines() do
    local session, own_path = line:match("^(%S+)%s+(%S+)$")
    if line ~= "" then
      requests[#requests + 1] =
        wrk.format(nil, own_path, { ["X-Session-Id"] = session or line, ["Accept-Language"] = "en" })
    end
  end
  file:close()
  assert(#requests > 0, "no session ids in " .. path)
  -- Threads start at different borrowers, then each goes round all of them.
  index = (id * 101) % #requests
  statuses = {}
  non200 = 0
end

function request()
  index = index % #requests + 1
  return requests[index]
end

function response(status, headers, body)
  if status ~= 200 then
    non200 = non200 + 1
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local total, by_status = 0, {}
  for _, thread in ipairs(threads) do
    total = total + thread:get("non200")
    for status, count in pairs(thread:get("statuses")) do
      by_status[status] = (by_status[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(by_status) do
    parts[#parts + 1] = string.format("%s=%d", tostring(status), count)
  end
  table.sort(parts)
  io.write(string.format("non-200: %d\n", total))
  io.write(string.format("statuses: %s\n", #parts > 0 and table.concat(parts, ",") or "-"))
end
