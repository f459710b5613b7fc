print("pocket: not built yet")
