"""The game engine: states, actions, apply(state, action, rng) -> (state, events), replay."""
