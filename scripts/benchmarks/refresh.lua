-- wrk script: POSTs refresh-token grants, each token used once.
-- Usage: wrk ... -s refresh.lua URL -- TOKENS_FILE THREADS CLIENT_ID
-- Thread i takes tokens i, i+THREADS, i+2*THREADS, ... so no token is sent twice.
local next_id = 0
function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
end

function init(args)
    tokens = {}
    for line in io.lines(args[1]) do tokens[#tokens + 1] = line end
    step = tonumber(args[2])
    client_id = args[3]
    index = id + 1
end

function request()
    local token = tokens[index] or "exhausted"
    index = index + step
    return wrk.format("POST", nil, { ["Content-Type"] = "application/x-www-form-urlencoded" },
        "grant_type=refresh_token&client_id=" .. client_id .. "&refresh_token=" .. token)
end
