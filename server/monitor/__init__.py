"""The public log's monitor (`osmosis audit`): audit.py checks the log as a stranger to the server would."""
