-- wrk script for scripts/bench/read-api.ts: each request takes the next line of a file of
-- "<path> <api key>" lines, round-robin, so consecutive requests ask for different URLs with
-- their own tenants' keys. The bare baseline runs the same script, so both sides pay the same
-- load-generator cost.
local lines = {}
local next_line = 0

-- args[2], when given: how many lines earlier runs took, so this run goes on after them.
function init(args)
  for line in io.lines(args[1]) do
    local path, key = line:match("^(%S+) (%S+)$")
    if path then
      lines[#lines + 1] = wrk.format("GET", path, { ["Authorization"] = "Bearer " .. key })
    end
  end
  next_line = (tonumber(args[2]) or 0) % #lines
end

function request()
  next_line = next_line % #lines + 1
  return lines[next_line]
end
