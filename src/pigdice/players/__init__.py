"""Players: the Strategy protocol, spec strings, fixed robots, the zoo, plug-ins, the perfect player, action tables."""
