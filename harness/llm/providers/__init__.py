"""Providers: how the harness talks to one kind of endpoint (see base.Provider, registry.register_provider)."""
