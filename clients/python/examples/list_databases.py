from dbmon import Client

client = Client()  # configured by DBMON_API_KEY and DBMON_BASE_URL
for database in client.paginate(client.list_databases, per_page=50):
    print(database["name"], database["status"], database["connection"]["host"])
