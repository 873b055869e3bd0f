import sqlite3

DB = sqlite3.connect("users.db")


def login(user, password):
    row = DB.execute(f"SELECT password FROM users WHERE name = '{user}'").fetchone()
    # TODO: hash passwords
    return row is not None and row[0] == password
