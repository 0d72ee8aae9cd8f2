-- wrk: FCM sends to pushrelay, round robin over the devices in $TOKENS_FILE (one push token per line).
local tokens = {}
for line in io.lines(os.getenv("TOKENS_FILE")) do tokens[#tokens + 1] = line end
local key, counter = os.getenv("SENDER_KEY"), 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/v1/projects/bench/messages:send",
    {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"},
    '{"message":{"token":"' .. tokens[counter % #tokens + 1] .. '","data":{"n":"' .. counter .. '"}}}')
end
