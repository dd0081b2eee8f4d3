from zoneinfo import available_timezones

from django import forms

TIME_ZONES = sorted(available_timezones())


class ProfileForm(forms.Form):
    display_name = forms.CharField(max_length=100, required=False)
    time_zone = forms.ChoiceField(choices=[(tz, tz) for tz in TIME_ZONES], initial="UTC")
    memory_enabled = forms.BooleanField(
        required=False,
        label="Remember new conversations by default",
    )


class DeleteAccountForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, strip=False)
    confirm = forms.BooleanField(
        label="I understand that everything Pegasus knows about me will be erased for good.",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That password is not correct.")
        return password


class NewTokenForm(forms.Form):
    device = forms.CharField(max_length=60, label="Device name")
