print("pushbench: being rebuilt")
