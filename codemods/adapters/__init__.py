"""Bridges that let other tools run ccmigrate rules."""
