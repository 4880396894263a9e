"""Modules that misbehave while they are imported; verification must survive each one."""
