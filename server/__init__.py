"""The Osmosis game server: a rules engine (`server.rules`) and, around it, the HTTP service."""
