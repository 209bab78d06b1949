from django.urls import URLPattern

app_name = "exports"

urlpatterns: list[URLPattern] = []
