from django.urls import path

from games.exports import views as export_views

app_name = "exports"

urlpatterns = [
    path("<int:pk>/protocol.xlsx", export_views.protocol_xlsx, name="protocol_xlsx"),
    path("<int:pk>/log.json", export_views.log_json, name="log_json"),
]
