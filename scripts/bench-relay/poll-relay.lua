-- wrk: idle polls (`wait=0`, nothing queued) to pushrelay, round robin over the devices in $DEVICES_FILE
-- ("device_id secret" per line): what a poll with nothing to deliver costs the relay and its database.
local devices = {}
for line in io.lines(os.getenv("DEVICES_FILE")) do
  local id, secret = line:match("(%S+) (%S+)")
  devices[#devices + 1] = {id = id, secret = secret}
end
local counter = 0
request = function()
  counter = counter + 1
  local device = devices[counter % #devices + 1]
  return wrk.format("GET", "/v1/devices/" .. device.id .. "/messages?after=0&wait=0",
    {["Authorization"] = "Bearer " .. device.secret})
end
