-- wrk script: POSTs the same refresh-token grant again and again (for issuers that do not rotate).
-- Usage: wrk ... -s static-refresh.lua URL -- REFRESH_TOKEN BASIC_CREDENTIALS
function init(args)
    body = "grant_type=refresh_token&refresh_token=" .. args[1]
    authorization = "Basic " .. args[2]
end

function request()
    return wrk.format("POST", nil, {
        ["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = authorization }, body)
end
