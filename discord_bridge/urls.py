from django.urls import path

from discord_bridge import round_views, views, voice_views

app_name = "discord"

urlpatterns = [
    path("<int:pk>/discord/", views.panel, name="panel"),
    path("<int:pk>/discord/settings/", views.link_settings, name="settings"),
    path("<int:pk>/discord/confirm/", views.confirm, name="confirm"),
    path("<int:pk>/discord/proposals/<int:proposal_pk>/dismiss/", views.dismiss, name="dismiss"),
    path("<int:pk>/discord/chat/", views.chat, name="chat"),
    path("<int:pk>/discord/voice/release/", voice_views.release, name="voice_release"),  # issue 29
    path("<int:pk>/discord/voice/settings/", voice_views.settings, name="voice_settings"),
    path("rounds/<int:rid>/discord/publish/", round_views.publish, name="round_publish"),  # issue 29, chore 8
    path("<int:pk>/discord/vote/recheck/", voice_views.recheck, name="vote_recheck"),
    path("<int:pk>/discord/silence/<int:event_pk>/foul/", voice_views.silence_foul, name="silence_foul"),
    path("<int:pk>/discord/silence/<int:event_pk>/dismiss/", voice_views.silence_dismiss, name="silence_dismiss"),
]
