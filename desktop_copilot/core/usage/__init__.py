"""Tokens and money: the price table and the usage totals of conversations and days."""
